#include "render/band_layout.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <string>

#include "render/graphviz_session.hpp"
#include "render/text_measure_cache.hpp"

namespace nndna::render::detail {
namespace {

// More processes than this add fork and copy costs for bands that are already small.
constexpr std::size_t kMaxProcesses = 4;

// The numbers in the first `key="..."` attribute of `text` (Graphviz writes fixed notation).
std::vector<double> numbersOfAttribute(std::string_view text, std::string_view key) {
  std::vector<double> out;
  const auto at = text.find(key);
  if (at == std::string_view::npos) return out;
  const auto begin = at + key.size();
  const auto end = text.find('"', begin);
  std::string values(text.substr(begin, end - begin));
  for (char& c : values) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-')) c = ' ';
  }
  const char* p = values.c_str();
  char* next = nullptr;
  for (double v = std::strtod(p, &next); next != p; v = std::strtod(p, &next)) {
    out.push_back(v);
    p = next;
  }
  return out;
}

LaidOutBand layOutBand(const std::string& dot, std::size_t index, std::span<const std::string> ends,
                       const LayoutOptions& options, const GraphvizLock& lock) {
  LaidOutGraph laidOut(dot, options, lock);
  LaidOutBand band;
  band.svg = std::string(laidOut.render("svg").view());
  const std::string_view text = band.svg;
  const auto viewBox = numbersOfAttribute(text, "viewBox=\"");
  const auto graphStart = text.find("<g id=\"graph0\"");
  const auto svgEnd = text.rfind("</svg>");
  if (viewBox.size() != 4 || graphStart == std::string_view::npos || svgEnd == std::string_view::npos ||
      svgEnd < graphStart) {
    throw RenderError("stacked bands: unexpected SVG from Graphviz for band " + std::to_string(index));
  }
  band.width = viewBox[2];
  band.height = viewBox[3];
  // translate(tx ty) maps Graphviz's points (y up) to the band's SVG space: (tx + x, ty - y).
  const auto transform = numbersOfAttribute(text.substr(graphStart), "transform=\"");
  if (transform.size() < 5) throw RenderError("stacked bands: no graph transform in band " + std::to_string(index));
  const double tx = transform[transform.size() - 2];
  const double ty = transform[transform.size() - 1];
  band.bodyStart = graphStart;
  band.bodyLength = svgEnd - graphStart;

  for (const std::string& name : ends) {
    Agnode_t* n = graphvizLibrary().agnode(laidOut.graph(), const_cast<char*>(name.c_str()), 0);
    if (n == nullptr) continue;
    const double x = tx + ND_coord(n).x;
    const double y = ty - ND_coord(n).y;
    const double halfHeight = ND_height(n) * 72.0 / 2.0;
    band.boxes[name] = BandBox{x, y - halfHeight, y + halfHeight};
  }
  return band;
}

// --- A child's answer: its bands in order, then either Graphviz's message for the band that
// failed or the text measurements the child made (text_measure_cache.hpp). ---------------------

void putU64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void putF64(std::string& out, double v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void putText(std::string& out, std::string_view s) {
  putU64(out, s.size());
  out.append(s);
}

std::string encodedBand(const LaidOutBand& band) {
  std::string out = "B";
  putText(out, band.svg);
  putU64(out, band.bodyStart);
  putU64(out, band.bodyLength);
  putF64(out, band.width);
  putF64(out, band.height);
  putU64(out, band.boxes.size());
  for (const auto& [name, box] : band.boxes) {
    putText(out, name);
    putF64(out, box.x);
    putF64(out, box.top);
    putF64(out, box.bottom);
  }
  return out;
}

std::string encodedMeasures(const std::vector<TextMeasure>& measures) {
  std::string out = "M";
  putU64(out, measures.size());
  for (const TextMeasure& m : measures) {
    putText(out, m.key);
    for (const double v : {m.width, m.height, m.yoffsetLayout, m.yoffsetCenterline}) putF64(out, v);
  }
  return out;
}

// Reads what encodedBand and encodedMeasures wrote; the writer is this program's own child, so a
// short or garbled answer is a bug or a child killed mid-write, reported as such.
class AnswerReader {
 public:
  explicit AnswerReader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return pos_ == bytes_.size(); }
  char mark() { return take(1)[0]; }
  std::uint64_t u64() { return scalar<std::uint64_t>(); }
  double f64() { return scalar<double>(); }
  std::string text() {
    const std::uint64_t size = u64();
    return std::string(take(size));
  }

 private:
  std::string_view take(std::uint64_t size) {
    if (size > bytes_.size() - pos_) throw RenderError("stacked bands: a layout process's answer is cut short");
    const std::string_view s = bytes_.substr(pos_, size);
    pos_ += size;
    return s;
  }
  template <typename T>
  T scalar() {
    T v{};
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  }
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

LaidOutBand decodedBand(AnswerReader& in) {
  LaidOutBand band;
  band.svg = in.text();
  band.bodyStart = in.u64();
  band.bodyLength = in.u64();
  band.width = in.f64();
  band.height = in.f64();
  if (band.bodyStart > band.svg.size() || band.bodyLength > band.svg.size() - band.bodyStart) {
    throw RenderError("stacked bands: a layout process's answer is garbled");
  }
  for (std::uint64_t n = in.u64(); n > 0; --n) {
    std::string name = in.text();
    const double x = in.f64(), top = in.f64(), bottom = in.f64();
    band.boxes[std::move(name)] = BandBox{x, top, bottom};
  }
  return band;
}

std::vector<TextMeasure> decodedMeasures(AnswerReader& in) {
  std::vector<TextMeasure> measures;
  for (std::uint64_t n = in.u64(); n > 0; --n) {
    TextMeasure m;
    m.key = in.text();
    m.width = in.f64();
    m.height = in.f64();
    m.yoffsetLayout = in.f64();
    m.yoffsetCenterline = in.f64();
    measures.push_back(std::move(m));
  }
  return measures;
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// --- The processes. -----------------------------------------------------------------------------

struct Range {
  std::size_t begin = 0, end = 0;
};

// Consecutive runs of bands of about equal DOT size (a band's layout time follows its size), at
// most `count` of them, none empty: a run ends where ending it lands nearest its share.
std::vector<Range> split(std::span<const std::string> dots, std::size_t count) {
  std::size_t total = 0;
  for (const std::string& d : dots) total += d.size();
  std::vector<Range> ranges{{0, 0}};
  std::size_t sum = 0;  // DOT bytes in the runs so far
  for (std::size_t i = 0; i < dots.size(); ++i) {
    // Band i starts the next run when the run so far is nearer its share without it than with it.
    const std::size_t share = total * ranges.size() / count;
    if (ranges.size() < count && ranges.back().end > ranges.back().begin && 2 * sum + dots[i].size() > 2 * share) {
      ranges.push_back({i, i});
    }
    sum += dots[i].size();
    ranges.back().end = i + 1;
  }
  return ranges;
}

std::size_t availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<std::size_t>(std::max(1, CPU_COUNT(&set)));
}

// A forked child laying out one range; killed and reaped if this process leaves early (an
// exception), so no child outlives the call or stays a zombie.
class LayoutChild {
 public:
  LayoutChild(Range range, int answerFd, pid_t pid) : range_(range), fd_(answerFd), pid_(pid) {}
  LayoutChild(const LayoutChild&) = delete;
  LayoutChild& operator=(const LayoutChild&) = delete;
  ~LayoutChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      reap();
    }
    if (fd_ >= 0) ::close(fd_);
  }

  // Waits for the child, appends its bands to `bands` and remembers the text it measured; throws
  // RenderError for the first band that did not lay out, or when the child did not finish.
  void collect(std::vector<LaidOutBand>& bands) {
    const int status = reap();
    const std::string what = "the process laying out bands " + std::to_string(range_.begin) + "-" +
                             std::to_string(range_.end - 1);
    if (WIFSIGNALED(status)) {
      throw RenderError("stacked bands: " + what + " was killed by signal " + std::to_string(WTERMSIG(status)));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw RenderError("stacked bands: " + what + " failed");
    const std::string answer = readAnswer();
    AnswerReader in(answer);
    for (std::size_t i = range_.begin; i < range_.end; ++i) {
      const char mark = in.mark();
      if (mark == 'E') throw RenderError(in.text());
      if (mark != 'B') throw RenderError("stacked bands: " + what + " answered garbled bytes");
      bands.push_back(decodedBand(in));
    }
    if (in.done() || in.mark() != 'M') throw RenderError("stacked bands: " + what + " answered garbled bytes");
    rememberMeasures(decodedMeasures(in));
    if (!in.done()) throw RenderError("stacked bands: " + what + " answered more than its bands");
  }

 private:
  int reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

  std::string readAnswer() const {
    const off_t size = ::lseek(fd_, 0, SEEK_END);
    if (size < 0) {
      throw RenderError(std::string("stacked bands: cannot read a layout process's answer: ") + std::strerror(errno));
    }
    std::string answer(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    while (done < answer.size()) {
      const ssize_t n = ::pread(fd_, answer.data() + done, answer.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw RenderError("stacked bands: a layout process's answer could not be read");
      done += static_cast<std::size_t>(n);
    }
    return answer;
  }

  Range range_;
  int fd_ = -1;
  pid_t pid_ = -1;
};

// In the child: lays out the range, writes the answer and ends without running this process's
// exit handlers or destructors (they belong to the parent's state).
[[noreturn]] void runChild(int answerFd, pid_t parent, Range range, std::span<const std::string> dots,
                           std::span<const std::string> ends, const LayoutOptions& options, const GraphvizLock& lock) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);
  startRecordingMeasures();
  try {
    for (std::size_t i = range.begin; i < range.end; ++i) {
      std::string answer;
      bool failed = false;
      try {
        answer = encodedBand(layOutBand(dots[i], i, ends, options, lock));
      } catch (const std::exception& e) {
        answer = "E";
        putText(answer, e.what());
        failed = true;
      }
      if (!writeAll(answerFd, answer)) ::_exit(4);
      if (failed) ::_exit(0);
    }
    if (!writeAll(answerFd, encodedMeasures(recordedMeasures()))) ::_exit(4);
  } catch (...) {
    ::_exit(5);  // out of memory while encoding: the parent reports the failure
  }
  ::_exit(0);
}

}  // namespace

std::vector<LaidOutBand> layOutBands(std::span<const std::string> dots, std::span<const std::string> ends,
                                     const LayoutOptions& options) {
  const std::size_t wanted = options.processes != 0 ? options.processes : std::min(availableCpus(), kMaxProcesses);
  const std::vector<Range> ranges = split(dots, std::max<std::size_t>(1, std::min(wanted, dots.size())));
  // Held across the forks: no other thread of this process is inside Graphviz while its state is
  // copied, and every layout below, in this process or a child, runs under it.
  const GraphvizLock lock = lockGraphviz();

  // A range whose child could not be started (no memory, no processes left) is laid out here
  // when its turn comes.
  std::vector<std::optional<LayoutChild>> children(ranges.size());
  const pid_t self = ::getpid();
  for (std::size_t r = 1; r < ranges.size(); ++r) {
    const int fd = ::memfd_create("nndna-layout-bands", MFD_CLOEXEC);
    const pid_t pid = fd < 0 ? -1 : ::fork();
    if (pid == 0) runChild(fd, self, ranges[r], dots, ends, options, lock);
    if (pid > 0) {
      children[r].emplace(ranges[r], fd, pid);
    } else if (fd >= 0) {
      ::close(fd);
    }
  }

  std::vector<LaidOutBand> bands;
  bands.reserve(dots.size());
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    if (children[r]) {
      children[r]->collect(bands);
      continue;
    }
    for (std::size_t i = ranges[r].begin; i < ranges[r].end; ++i) {
      bands.push_back(layOutBand(dots[i], i, ends, options, lock));
    }
  }
  return bands;
}

}  // namespace nndna::render::detail

