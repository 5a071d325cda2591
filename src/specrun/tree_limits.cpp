#include "specrun/tree_limits.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "specrun/unique_fd.hpp"

namespace nndna::specrun {

namespace fs = std::filesystem;

std::string describe(TreeLimitSource source) {
  switch (source) {
    case TreeLimitSource::none: return "none";
    case TreeLimitSource::rlimit: return "RLIMIT_NPROC in its user namespace";
    case TreeLimitSource::cgroupV1: return "cgroup v1";
    case TreeLimitSource::cgroupV2: return "cgroup v2";
  }
  return "none";
}

namespace {

constexpr const char* kGroupPrefix = "nndna-";

// Where a controller can be used: this process's own group in a hierarchy that has it.
struct Hierarchy {
  TreeLimitSource source = TreeLimitSource::none;
  std::string ownGroup;  // e.g. /sys/fs/cgroup/memory/user.slice
  std::string why;       // when none
};

struct Detected {
  Hierarchy memory;
  Hierarchy processes;
};

std::string readSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool writeSmallFile(const std::string& path, const std::string& text) {
  const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) return false;
  return ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

bool hasWord(const std::string& text, const std::string& word) {
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (w == word) return true;
  }
  return false;
}

// "key N" in a flat-keyed cgroup file (memory.events, memory.oom_control, pids.events).
std::uint64_t keyedValue(const std::string& path, const std::string& key) {
  std::istringstream lines(readSmallFile(path));
  for (std::string k; lines >> k;) {
    std::uint64_t value = 0;
    if (!(lines >> value)) break;
    if (k == key) return value;
  }
  return 0;
}

struct Mount {
  std::string root;   // the hierarchy's directory shown at the mount point
  std::string point;
};

// The cgroup2 mount and the v1 mounts by controller, from /proc/self/mountinfo.
void findMounts(Mount& v2, Mount& memoryV1, Mount& pidsV1) {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (!(fields >> id >> parent >> dev >> root >> point)) continue;
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string type, source, options;
    tail >> type >> source >> options;
    if (type == "cgroup2" && v2.point.empty()) v2 = {root, point};
    if (type != "cgroup") continue;
    std::istringstream opts(options);
    for (std::string opt; std::getline(opts, opt, ',');) {
      if (opt == "memory" && memoryV1.point.empty()) memoryV1 = {root, point};
      if (opt == "pids" && pidsV1.point.empty()) pidsV1 = {root, point};
    }
  }
}

// A group path from /proc/self/cgroup, as a directory under the mount.
std::string groupDir(const Mount& mount, std::string path) {
  if (mount.root != "/" && path.starts_with(mount.root)) path = path.substr(mount.root.size());
  if (path.empty() || path == "/") return mount.point;
  return mount.point + (path.front() == '/' ? "" : "/") + path;
}

// Removes groups that nndna processes no longer alive left behind (killed with SIGKILL).
void sweepStaleGroups(const std::string& ownGroup) {
  std::error_code ec;
  for (fs::directory_iterator it(ownGroup, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kGroupPrefix)) continue;
    const long pid = std::atol(name.c_str() + std::strlen(kGroupPrefix));
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::istringstream procs(readSmallFile(it->path().string() + "/cgroup.procs"));
    for (pid_t p; procs >> p;) ::kill(p, SIGKILL);
    ::rmdir(it->path().c_str());
  }
}

Detected detect() {
  Mount v2, memoryV1, pidsV1;
  findMounts(v2, memoryV1, pidsV1);
  std::string v2Path, memoryPath, pidsPath;
  {
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);) {
      const std::size_t first = line.find(':');
      const std::size_t second = line.find(':', first + 1);
      if (first == std::string::npos || second == std::string::npos) continue;
      const std::string controllers = line.substr(first + 1, second - first - 1);
      const std::string path = line.substr(second + 1);
      if (line.substr(0, first) == "0" && controllers.empty()) v2Path = path;
      std::istringstream list(controllers);
      for (std::string c; std::getline(list, c, ',');) {
        if (c == "memory") memoryPath = path;
        if (c == "pids") pidsPath = path;
      }
    }
  }
  Detected found;
  const std::string v2Group = v2.point.empty() || v2Path.empty() ? "" : groupDir(v2, v2Path);
  auto choose = [&](Hierarchy& h, const std::string& controller, const Mount& v1, const std::string& v1Path) {
    if (!v2Group.empty()) {
      std::string enabled = readSmallFile(v2Group + "/cgroup.subtree_control");
      // The root cgroup may enable a controller for its children even while it holds processes.
      if (!hasWord(enabled, controller) && v2Path == "/" &&
          hasWord(readSmallFile(v2Group + "/cgroup.controllers"), controller)) {
        writeSmallFile(v2Group + "/cgroup.subtree_control", "+" + controller);
        enabled = readSmallFile(v2Group + "/cgroup.subtree_control");
      }
      if (hasWord(enabled, controller)) {
        h = {TreeLimitSource::cgroupV2, v2Group, ""};
        return;
      }
      // A process in a non-root v2 group may not enable controllers for children of its own group
      // (no internal processes); a delegated subtree puts it in a leaf instead (the service in
      // <delegated>/main): the runs' groups are then made next to that leaf.
      const std::string parent = fs::path(v2Group).parent_path().string();
      if (v2Path != "/" && hasWord(readSmallFile(parent + "/cgroup.subtree_control"), controller) &&
          ::access(parent.c_str(), W_OK) == 0) {
        h = {TreeLimitSource::cgroupV2, parent, ""};
        return;
      }
    }
    if (!v1.point.empty() && !v1Path.empty()) {
      h = {TreeLimitSource::cgroupV1, groupDir(v1, v1Path), ""};
      return;
    }
    h.why = controller + ": cgroup v2 " +
            (v2Group.empty() ? "is not mounted" : "does not delegate it to " + v2Group) +
            ", and no cgroup v1 hierarchy has it";
  };
  choose(found.memory, "memory", memoryV1, memoryPath);
  choose(found.processes, "pids", pidsV1, pidsPath);
  for (const Hierarchy* h : {&found.memory, &found.processes}) {
    if (h->source != TreeLimitSource::none) sweepStaleGroups(h->ownGroup);
  }
  return found;
}

const Detected& detected() {
  static const Detected found = detect();
  return found;
}

std::string newGroupName() {
  static std::atomic<unsigned> counter{0};
  return std::string(kGroupPrefix) + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

TreeLimitGroup::TreeLimitGroup(std::uint64_t memoryBytes, std::uint64_t maxProcesses) {
  const Detected& found = detected();
  const std::string name = newGroupName();
  auto make = [&](Group& group, const Hierarchy& h, const char* what) {
    if (h.source == TreeLimitSource::none) {
      whyNot_ += (whyNot_.empty() ? "" : "; ") + h.why;
      return false;
    }
    // v2: memory and pids share one group.
    if (&group == &processes_ && h.source == TreeLimitSource::cgroupV2 && memory_.source == TreeLimitSource::cgroupV2 &&
        h.ownGroup == found.memory.ownGroup) {
      group = {h.source, memory_.dir, false};
      return true;
    }
    const std::string dir = h.ownGroup + "/" + name;
    if (::mkdir(dir.c_str(), 0755) != 0) {
      whyNot_ += (whyNot_.empty() ? "" : "; ") + std::string(what) + ": cannot create a cgroup in " + h.ownGroup +
                 ": " + std::strerror(errno);
      return false;
    }
    group = {h.source, dir, true};
    return true;
  };
  if (make(memory_, found.memory, "memory")) {
    const bool v2 = memory_.source == TreeLimitSource::cgroupV2;
    const std::string bytes = std::to_string(memoryBytes);
    if (!writeSmallFile(memory_.dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), bytes)) {
      whyNot_ += (whyNot_.empty() ? "" : "; ") + std::string("memory: cannot set the limit in ") + memory_.dir;
      ::rmdir(memory_.dir.c_str());
      memory_ = {};
    } else {
      // No swap either, where the kernel accounts it (else a limited tree could swap).
      writeSmallFile(memory_.dir + (v2 ? "/memory.swap.max" : "/memory.memsw.limit_in_bytes"), v2 ? "0" : bytes);
    }
  }
  if (make(processes_, found.processes, "processes")) {
    if (!writeSmallFile(processes_.dir + "/pids.max", std::to_string(maxProcesses))) {
      whyNot_ += (whyNot_.empty() ? "" : "; ") + std::string("processes: cannot set the limit in ") + processes_.dir;
      if (processes_.owned) ::rmdir(processes_.dir.c_str());
      processes_ = {};
    }
  }
  // Without the file the parent moves the child (attach), as for v2.
  for (Group* group : {&memory_, &processes_}) {
    if (group->source == TreeLimitSource::cgroupV1 && group->owned) {
      group->selfJoin.reset(::open((group->dir + "/tasks").c_str(), O_WRONLY | O_CLOEXEC));
    }
  }
}

std::array<int, 2> TreeLimitGroup::selfJoinFiles() const {
  return {memory_.selfJoin.get(), processes_.selfJoin.get()};
}

void TreeLimitGroup::lose(Group& group, const std::string& why) {
  whyNot_ += (whyNot_.empty() ? "" : "; ") + std::string("cannot move the sandbox into ") + group.dir + ": " + why;
  group.source = TreeLimitSource::none;
}

void TreeLimitGroup::selfJoinFailed(std::size_t index, int error) {
  if (index != kMemoryGroup && index != kProcessGroup) return;
  Group& group = index == kMemoryGroup ? memory_ : processes_;
  if (group.source != TreeLimitSource::none) lose(group, std::strerror(error));
}

bool TreeLimitGroup::attach(pid_t pid) {
  bool all = true;
  const std::string text = std::to_string(pid);
  for (Group* group : {&memory_, &processes_}) {
    if (group->selfJoin) {
      group->selfJoin.reset();  // the child joins by itself, with its own copy
      continue;
    }
    if (group->source == TreeLimitSource::none) continue;
    if (!group->owned) continue;  // shares the memory group (v2), attached there
    if (!writeSmallFile(group->dir + "/cgroup.procs", text)) {
      lose(*group, std::strerror(errno));
      all = false;
    }
  }
  if (processes_.source != TreeLimitSource::none && !processes_.owned && memory_.source == TreeLimitSource::none) {
    processes_.source = TreeLimitSource::none;  // the shared v2 group failed
  }
  return all;
}

bool TreeLimitGroup::memoryLimitHit() const {
  if (memory_.source == TreeLimitSource::none) return false;
  const bool v2 = memory_.source == TreeLimitSource::cgroupV2;
  return keyedValue(memory_.dir + (v2 ? "/memory.events" : "/memory.oom_control"), "oom_kill") > 0;
}

bool TreeLimitGroup::processLimitHit() const {
  if (processes_.source == TreeLimitSource::none) return false;
  return keyedValue(processes_.dir + "/pids.events", "max") > 0;
}

TreeLimitGroup::~TreeLimitGroup() {
  for (Group* group : {&memory_, &processes_}) {
    if (!group->owned) continue;
    // Normally empty already: the sandbox's PID namespace died with its init. Without one, what
    // the program left running is killed here. rmdir fails while a dying process is still
    // being torn down: retried for up to a second.
    for (int attempt = 0; attempt < 1000; ++attempt) {
      if (::rmdir(group->dir.c_str()) == 0 || errno == ENOENT) break;
      std::istringstream procs(readSmallFile(group->dir + "/cgroup.procs"));
      for (pid_t p; procs >> p;) ::kill(p, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

}  // namespace nndna::specrun
