#!/usr/bin/env bash
# network_libraries.sh NNDNA NNDNA_NET: `nndna` loads none of the network libraries (libcurl,
# cpp-httplib, OpenSSL), nndna-net loads them (so the check can see them when they are there).
set -u
network='lib(curl|cpp-httplib|ssl|crypto)\.so'
nndna_libs="$(ldd "$1")" || { echo "ldd $1 failed"; exit 1; }
net_libs="$(ldd "$2")" || { echo "ldd $2 failed"; exit 1; }
if grep -E "$network" <<<"$nndna_libs"; then
  echo "FAIL: $1 loads the network libraries above"; exit 1
fi
for lib in libcurl libcpp-httplib libssl; do
  grep -q "$lib\.so" <<<"$net_libs" || { echo "FAIL: $2 does not load $lib:"; echo "$net_libs"; exit 1; }
done
echo "nndna loads $(wc -l <<<"$nndna_libs") libraries, nndna-net $(wc -l <<<"$net_libs")"
