// nndna xray: traced(), a function wrapped in a span that records its arguments, its result and
// what it throws. A separate header from <nndna/xray.hpp> because its options own strings and
// lists (<string>, <vector>), which a file that only opens spans does not need to parse.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "nndna/xray.hpp"

namespace nndna::xray {

struct TracedOptions {
  std::string kind{};
  std::vector<std::string> tags{};
  std::vector<std::string> argNames{};  // names of the inputs; default arg0, arg1, …
  std::vector<std::string> redact{};
  bool captureOutput = true;
};

namespace detail {
NNDNA_API std::string_view defaultArgName(std::size_t index) noexcept;
NNDNA_API std::string describeCurrentException();

// std::invoke without <functional>: callables, and member function pointers with an object (or a
// pointer to one) first.
template <class F, class... Args>
decltype(auto) call(F& fn, Args&&... args) {
  if constexpr (std::is_member_function_pointer_v<F>) {
    return [&fn](auto&& object, auto&&... rest) -> decltype(auto) {
      if constexpr (std::is_pointer_v<std::remove_cvref_t<decltype(object)>>)
        return ((*object).*fn)(std::forward<decltype(rest)>(rest)...);
      else
        return (std::forward<decltype(object)>(object).*fn)(std::forward<decltype(rest)>(rest)...);
    }(std::forward<Args>(args)...);
  } else {
    return fn(std::forward<Args>(args)...);
  }
}
}  // namespace detail

// `traced("call_llm", fn)(args…)`: calls fn inside a span that records the arguments, the result
// (unless void or captureOutput is false) and an exception ("TypeName: what()", rethrown).
template <class F>
class Traced {
 public:
  Traced(std::string name, F fn, TracedOptions options)
      : name_(std::move(name)), fn_(std::move(fn)), options_(std::move(options)) {
    for (const auto& t : options_.tags) tagViews_.emplace_back(t);
    for (const auto& r : options_.redact) redactViews_.emplace_back(r);
  }

  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    if (!enabled()) return detail::call(fn_, std::forward<Args>(args)...);
    std::size_t index = 0;
    std::array<Arg, sizeof...(Args)> inputs{Arg(argName(index++), args)...};
    Span span(detail::SpanSpec{name_,
                               {inputs.data(), inputs.size()},
                               options_.kind,
                               {tagViews_.data(), tagViews_.size()},
                               {redactViews_.data(), redactViews_.size()},
                               options_.captureOutput});
    using Result = decltype(detail::call(fn_, std::forward<Args>(args)...));
    try {
      if constexpr (std::is_void_v<Result>) {
        detail::call(fn_, std::forward<Args>(args)...);
      } else {
        decltype(auto) result = detail::call(fn_, std::forward<Args>(args)...);
        span.output(result);
        return result;  // moves a value, passes a reference through
      }
    } catch (...) {
      span.error(detail::describeCurrentException());
      throw;
    }
  }

 private:
  std::string_view argName(std::size_t index) const noexcept {
    return index < options_.argNames.size() ? std::string_view(options_.argNames[index])
                                            : detail::defaultArgName(index);
  }
  std::string name_;
  F fn_;
  TracedOptions options_;
  std::vector<std::string_view> tagViews_;
  std::vector<std::string_view> redactViews_;
};

template <class F>
Traced<std::decay_t<F>> traced(std::string name, F&& fn, TracedOptions options = {}) {
  return Traced<std::decay_t<F>>(std::move(name), std::forward<F>(fn), std::move(options));
}

}  // namespace nndna::xray
