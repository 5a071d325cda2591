# Every third-party library comes from Debian (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)

# libdw resolves return addresses to file/line/column (call-site capture).
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
# Graphviz's layout library, used in process for diagrams and xray graphs.
pkg_check_modules(GVC REQUIRED IMPORTED_TARGET libgvc)
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
