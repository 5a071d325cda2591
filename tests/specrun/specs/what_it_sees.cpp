// Issue 9.6/9.7: what a spec finds around it. It succeeds; its label lists the host paths it can
// see and its hostname, which the test checks.
#include <nndna/nndna.hpp>

#include <sys/utsname.h>
#include <unistd.h>

#include <string>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in["x"])); }

std::string report() {
  std::string seen;
  for (const char* path : {"/etc", "/root", "/home", "/run", "/var", "/tmp/.X11-unix", "/var/run/docker.sock",
                           "/run/dbus/system_bus_socket", "/sys", "/sys/fs", "/sys/kernel/mm/transparent_hugepage/defrag",
                           "/boot", "/opt", "/srv", "/mnt"}) {
    if (::access(path, F_OK) == 0) seen += std::string(path) + " ";
  }
  utsname name{};
  ::uname(&name);
  return "visible: [" + seen + "] hostname: " + name.nodename;
}

NNDNA_SPEC(Net) { return {.label = report(), .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
