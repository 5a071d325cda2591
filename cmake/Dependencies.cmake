# Every third-party library comes from Debian (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)

# A library loaded with dlopen when first needed rather than linked: `target`, an interface target
# with the headers (and pkg-config's flags) of pkg-config's `pkg` only, defines `define` to the
# soname to load, read (`objdump -p`) from the file named `library` that pkg-config would link, so
# that the library loaded is the one the headers describe.
function(nndna_loaded_library target pkg library define)
  set(soname "")
  foreach(file IN LISTS ${pkg}_LINK_LIBRARIES)
    get_filename_component(name "${file}" NAME)
    if(name STREQUAL "${library}")
      execute_process(COMMAND ${CMAKE_OBJDUMP} -p "${file}" OUTPUT_VARIABLE dynamic)
      string(REGEX MATCH "SONAME +([^ \n]+)" found "${dynamic}")
      set(soname "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(soname STREQUAL "")
    message(FATAL_ERROR "cannot read the soname of ${library} (pkg-config ${pkg}: ${${pkg}_LINK_LIBRARIES})")
  endif()
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE $<TARGET_PROPERTY:PkgConfig::${pkg},INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_options(${target} INTERFACE $<TARGET_PROPERTY:PkgConfig::${pkg},INTERFACE_COMPILE_OPTIONS>)
  target_compile_definitions(${target} INTERFACE ${define}="${soname}")
  target_link_libraries(${target} INTERFACE ${CMAKE_DL_LIBS})
endfunction()

# libdw resolves return addresses to file/line/column (call-site capture). Loaded the first time
# a call site or a crash is resolved (src/trace/libdw.hpp): most `nndna` commands never do.
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
nndna_loaded_library(nndna_libdw LIBDW libdw.so NNDNA_LIBDW_LIBRARY)
if(NNDNA_SANITIZE)
  # GCC 12's LeakSanitizer misreads the dynamic TLS of a library loaded with dlopen (libdw and
  # libelf have thread-local variables): its leak check at exit crashed ("Tracer caught signal
  # 11" after a "DTLS" range starting at 0x4da) in ExampleTest.InferenceGraphHasThePrediction-
  # ShapeAndTheDerivedOps/rnn_unrolled, every run. Under the sanitizers libdw is linked as well,
  # so its TLS is static; loading it when first needed then finds it loaded.
  target_link_libraries(nndna_libdw INTERFACE PkgConfig::LIBDW)
endif()
# Graphviz's layout library, used in process for diagrams and xray graphs. Loaded the first time
# a layout needs it (src/render/graphviz_library.hpp): `nndna diagram -o x.dot` never does.
pkg_check_modules(GVC REQUIRED IMPORTED_TARGET libgvc)
nndna_loaded_library(nndna_graphviz GVC libgvc.so NNDNA_GRAPHVIZ_LIBRARY)
# cpp-httplib 0.11 is a compiled library; its pkg-config -D flags must match (ABI).
pkg_check_modules(HTTPLIB IMPORTED_TARGET cpp-httplib)
# zlib: `nndna serve` gzips its answers itself.
find_package(ZLIB REQUIRED)

# mimalloc: the allocator of nndna's own programs (`nndna`, nndna-net and the benchmarks that
# stand for them), never of libnndna, whose users choose theirs. A million-op model and Graphviz's
# layout are millions of small blocks; docs/specrun.md ("The allocator") has what it changed. The
# sanitizers bring an allocator of their own, so their builds keep glibc's.
add_library(nndna_allocator INTERFACE)
if(NOT NNDNA_SANITIZE AND NOT NNDNA_FUZZ)
  find_package(mimalloc 2 REQUIRED CONFIG)
  # Linked, it replaces malloc for the whole process (libraries included): the dynamic linker
  # finds its malloc before glibc's.
  target_link_libraries(nndna_allocator INTERFACE mimalloc)
endif()

if(NNDNA_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(NNDNA_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
