# Static third-party libraries (option K3C_STATIC_DEPS, on by default).
#
# Why: every `k3c shim` (one per container) and every k3c start is an exec of this binary. With
# ~25 shared objects the dynamic loader spent ~5 ms of CPU, ~500 page faults and ~10,000 symbol
# relocations per exec, and each process kept private copies of the libraries' relocated data.
# Linked from Debian's own .a archives, k3c maps only libc, libm and the libraries that ship no
# .a (none on Debian 12 once scripts/install-deps.sh has run).
#
# Include after the find_package()/pkg_check_modules() calls of the top CMakeLists.txt, with
# OPENSSL_USE_STATIC_LIBS and ZLIB_USE_STATIC_LIBS set before them (FindOpenSSL/FindZLIB honour
# those themselves). The imported targets keep their names; only what they link changes.
if(NOT K3C_STATIC_DEPS)
  return()
endif()

# The static archive of library <name>, or <name> itself (linked shared) when the -dev
# package ships no .a. glibc's own libraries (libm, libdl, ...) stay shared: their .a only
# links into a fully static program.
function(_k3c_static_archive out name)
  if(name MATCHES "^(c|m|dl|pthread|rt|util|resolv)$")
    set(${out} "${name}" PARENT_SCOPE)
    return()
  endif()
  find_library(K3C_STATIC_LIB_${name} NAMES lib${name}.a)
  if(K3C_STATIC_LIB_${name})
    set(${out} "${K3C_STATIC_LIB_${name}}" PARENT_SCOPE)
  else()
    set(${out} "${name}" PARENT_SCOPE)
  endif()
endfunction()

# Points the pkg-config target PkgConfig::<prefix> at the static form of its libraries, in the
# order `pkg-config --static --libs` gives (the order static linking needs).
function(k3c_link_pkg_static prefix)
  set(libs "")
  foreach(name IN LISTS ${prefix}_STATIC_LIBRARIES)
    _k3c_static_archive(lib ${name})
    list(APPEND libs "${lib}")
  endforeach()
  list(APPEND libs ${${prefix}_STATIC_LDFLAGS_OTHER})
  set_target_properties(PkgConfig::${prefix} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
endfunction()

foreach(prefix SQLITE3 LIBARCHIVE NGHTTP2 RE2 LIBSECCOMP LIBLZ4)
  k3c_link_pkg_static(${prefix})
endforeach()

# libarchive: archive_write_set_format.o, which the pax writer needs for one helper, also holds
# the by-name table of every writer, so the xar writer comes along and wants libxml2 (and with
# it ICU). k3c reads and writes tar only: --gc-sections drops the unreachable writers (Debian
# builds libarchive with -ffunction-sections), and libxml2 is left off the link.
get_target_property(_k3c_archive_libs PkgConfig::LIBARCHIVE INTERFACE_LINK_LIBRARIES)
list(FILTER _k3c_archive_libs EXCLUDE REGEX "xml2")
set_target_properties(PkgConfig::LIBARCHIVE PROPERTIES INTERFACE_LINK_LIBRARIES
  "${_k3c_archive_libs}")
add_link_options(-Wl,--gc-sections)

# yaml-cpp's CMake package imports the shared library for the "None" configuration only.
_k3c_static_archive(yaml_cpp_archive yaml-cpp)
set_target_properties(yaml-cpp PROPERTIES IMPORTED_LOCATION_NONE "${yaml_cpp_archive}"
  IMPORTED_SONAME_NONE "")

# spdlog and fmt ship no .a in Debian: k3c compiles them itself (src/core/spdlog_lib). The
# target k3c_spdlog stands for spdlog::spdlog everywhere (see src/core/CMakeLists.txt).
set(K3C_SPDLOG_IN_TREE ON)
