#include "specrun/minimal_root.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace nndna::specrun {

namespace fs = std::filesystem;

namespace {

// Where the new root is assembled before pivot_root. Its host contents are hidden by the tmpfs
// mounted on it, which is why every bind's tree is copied (open_tree) before that mount.
constexpr const char* kStaging = "/tmp";

// The tmpfs root holds only directories, empty mount points and links.
constexpr const char* kRootOptions = "size=1m,nr_inodes=4096,mode=0755";

constexpr unsigned kReadOnly = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
// Devices stay devices (no nodev); read-only does not stop writes to a device node.
constexpr unsigned kDevice = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC;
constexpr unsigned kWritable = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;

// Phases after the steps, numbered past the last step in failure reports.
enum Phase { kMakePrivate, kMountStaging, kPivot, kDetachOldRoot, kSealRoot };

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.starts_with(dir) && (dir == "/" || path[dir.size()] == '/'));
}

bool setAttributes(const char* path, unsigned attributes, bool recursive) {
  mount_attr attr{};
  attr.attr_set = attributes;
  return ::mount_setattr(AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0;
}

}  // namespace

void RootPlan::addStep(Kind kind, const std::string& inside, std::string source, unsigned attributes) {
  steps_.push_back({kind, kStaging + inside, std::move(source), attributes, -1});
}

bool RootPlan::visibleThroughBind(const std::string& inside) const {
  for (const std::string& dir : boundDirs_) {
    if (under(inside, dir)) return true;
  }
  return false;
}

void RootPlan::ensureDirectory(const std::string& inside) {
  // Every ancestor first, from the top; a directory inside a bound one exists already.
  std::size_t at = 0;
  while (at != std::string::npos) {
    at = inside.find('/', at + 1);
    const std::string prefix = inside.substr(0, at);
    if (prefix.empty() || visibleThroughBind(prefix)) return;
    bool made = false;
    for (const std::string& dir : madeDirs_) made = made || dir == prefix;
    if (made) continue;
    addStep(Kind::makeDir, prefix, {}, 0);
    madeDirs_.push_back(prefix);
  }
}

void RootPlan::addReadOnly(const fs::path& host, const fs::path& inside) {
  std::error_code ec;
  const fs::path real = fs::canonical(host, ec);
  if (ec) return;
  const fs::file_status status = fs::status(real, ec);
  if (ec) return;
  const std::string target = inside.lexically_normal().string();
  const bool same = real.string() == target;
  const bool isDir = fs::is_directory(status);
  if (visibleThroughBind(target)) {
    if (same) return;  // already visible as it is
  } else {
    ensureDirectory(isDir ? target : fs::path(target).parent_path().string());
    if (!isDir) addStep(Kind::makeFile, target, {}, 0);
  }
  addStep(Kind::bind, target, real.string(), kReadOnly);
  if (isDir && same) boundDirs_.push_back(target);
}

void RootPlan::setWorkDir(const fs::path& host, const fs::path& inside, std::uint64_t tmpfsBytes) {
  const std::string target = inside.lexically_normal().string();
  ensureDirectory(target);
  workDirBytes_ = tmpfsBytes;
  if (tmpfsBytes > 0) {
    // Inodes bounded too: each costs memory whatever the file's size.
    addStep(Kind::mountTmpfs, target,
            "size=" + std::to_string(tmpfsBytes) + ",nr_inodes=" +
                std::to_string(std::max<std::uint64_t>(1024, tmpfsBytes / 16384)) + ",mode=0700",
            kWritable);
  } else {
    std::error_code ec;
    addStep(Kind::bind, target, fs::canonical(host, ec).string(), kWritable);
  }
}

const RootPlan& RootPlan::system() {
  static const RootPlan plan = [] {
    RootPlan p;
    p.addReadOnly("/usr", "/usr");
    // /bin, /lib, ...: links into /usr on a merged-/usr system, else directories of their own.
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
      std::error_code ec;
      const fs::file_status link = fs::symlink_status(top, ec);
      if (ec || !fs::exists(link)) continue;
      if (fs::is_symlink(link)) {
        p.addStep(Kind::symlink, top, fs::read_symlink(top, ec).string(), 0);
      } else if (fs::is_directory(link)) {
        p.addReadOnly(top, top);
      }
    }
    p.ensureDirectory("/dev");
    for (const char* device : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}) {
      p.addStep(Kind::makeFile, device, {}, 0);
      p.addStep(Kind::bind, device, device, kDevice);
    }
    p.addStep(Kind::symlink, "/dev/fd", "/proc/self/fd", 0);
    p.addStep(Kind::symlink, "/dev/stdin", "/proc/self/fd/0", 0);
    p.addStep(Kind::symlink, "/dev/stdout", "/proc/self/fd/1", 0);
    p.addStep(Kind::symlink, "/dev/stderr", "/proc/self/fd/2", 0);
    p.ensureDirectory("/proc");
    p.addStep(Kind::mountProc, "/proc", {}, 0);
    return p;
  }();
  return plan;
}

bool RootPlan::execute(int& failedStep, int& error) {
  const int steps = static_cast<int>(steps_.size());
  auto fail = [&](int step) {
    failedStep = step;
    error = errno;
    return false;
  };
  // Nothing done here may reach the host's mounts.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return fail(steps + kMakePrivate);
  // Each bind's tree is copied now, before the staging tmpfs covers kStaging: a recursive bind
  // made after that mount takes the tmpfs along when its source is kStaging itself (a spec in
  // /tmp). Sources are canonical paths: a link put in place of one since is not followed.
  for (int i = 0; i < steps; ++i) {
    Step& step = steps_[static_cast<std::size_t>(i)];
    if (step.kind != Kind::bind) continue;
    step.fd = ::open_tree(AT_FDCWD, step.source.c_str(),
                          OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
    if (step.fd < 0) return fail(i);
  }
  if (::mount("tmpfs", kStaging, "tmpfs", MS_NOSUID | MS_NODEV, kRootOptions) != 0) {
    return fail(steps + kMountStaging);
  }
  for (int i = 0; i < steps; ++i) {
    Step& step = steps_[static_cast<std::size_t>(i)];
    const char* target = step.staged.c_str();
    bool ok = true;
    switch (step.kind) {
      case Kind::makeDir: ok = ::mkdir(target, 0755) == 0 || errno == EEXIST; break;
      case Kind::makeFile: {
        const int fd = ::open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ok = fd >= 0;
        if (ok) ::close(fd);
        break;
      }
      case Kind::symlink: ok = ::symlink(step.source.c_str(), target) == 0; break;
      case Kind::bind: {
        ok = ::move_mount(step.fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) == 0 &&
             setAttributes(target, step.attributes, true);
        ::close(step.fd);
        step.fd = -1;
        break;
      }
      case Kind::mountProc:
        ok = ::mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, nullptr) == 0;
        break;
      case Kind::mountTmpfs:
        ok = ::mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, step.source.c_str()) == 0;
        break;
    }
    if (!ok) return fail(i);
  }
  // pivot_root(".", "."): the old root ends up stacked on the new one, and is then detached with
  // every host mount under it.
  if (::chdir(kStaging) != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0) return fail(steps + kPivot);
  if (::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0) return fail(steps + kDetachOldRoot);
  if (!setAttributes("/", kReadOnly, false)) return fail(steps + kSealRoot);
  return true;
}

std::string RootPlan::describeStep(int step) const {
  const int steps = static_cast<int>(steps_.size());
  if (step >= 0 && step < steps) {
    const Step& s = steps_[static_cast<std::size_t>(step)];
    const std::string inside = s.staged.substr(std::string_view(kStaging).size());
    switch (s.kind) {
      case Kind::makeDir: return "make the directory " + inside;
      case Kind::makeFile: return "make the mount point " + inside;
      case Kind::symlink: return "make the link " + inside;
      case Kind::bind: return "bind " + s.source + " at " + inside;
      case Kind::mountProc: return "mount /proc";
      case Kind::mountTmpfs: return "mount a tmpfs at " + inside;
    }
  }
  switch (step - steps) {
    case kMakePrivate: return "make the mounts private";
    case kMountStaging: return std::string("mount the root's tmpfs on ") + kStaging;
    case kPivot: return "pivot_root into the new root";
    case kDetachOldRoot: return "detach the old root";
    case kSealRoot: return "make the new root read-only";
    default: return "set up the root";
  }
}

}  // namespace nndna::specrun
