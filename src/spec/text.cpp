// nndna::Text (nndna.hpp): the strings the spec types own, with their members here so that the
// spec header need not include <string>.
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nndna/nndna.hpp"

// Instantiated once (nndna.hpp declares it extern).
template class std::vector<nndna::Text>;

namespace nndna {

char* Text::copyOf(std::string_view text) {
  if (text.empty()) return nullptr;
  char* data = new char[text.size() + 1];  // owned by the Text it is stored in
  std::memcpy(data, text.data(), text.size());
  data[text.size()] = '\0';
  return data;
}

Text::Text(const char* text) : Text(std::string_view(text != nullptr ? text : "")) {}
Text::Text(std::string_view text) : data_(copyOf(text)), size_(text.size()) {}
Text::Text(const Text& other) : data_(copyOf(other.view())), size_(other.size_) {}
Text::Text(Text&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

Text& Text::operator=(const Text& other) {
  if (this != &other) *this = Text(other);
  return *this;
}

Text& Text::operator=(Text&& other) noexcept {
  if (this != &other) {
    delete[] data_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Text::~Text() { delete[] data_; }

Text operator+(const Text& a, std::string_view b) {
  std::string joined;
  joined.reserve(a.size() + b.size());
  joined.append(a.view()).append(b);
  return Text(joined);
}

std::ostream& operator<<(std::ostream& out, const Text& text) { return out << text.view(); }

}  // namespace nndna
