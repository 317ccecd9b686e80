# Link options for the k3c executable: fewer pages and relocations at every exec (each
# container's `k3c shim` is one), see cmake/K3cStaticDeps.cmake for the libraries.
#   -static-libstdc++/-static-libgcc  no libstdc++.so/libgcc_s.so to map and relocate
#   --as-needed                       no DT_NEEDED entry for a library nothing uses
#   -O1                               ld's hash-table optimisation for the dynamic symbols
#   -z pack-relative-relocs           DT_RELR: the relative relocations packed (binutils 2.38+,
#                                     glibc 2.36+ read it; older ones ignore the option's tag)
#   -T cmake/k3c-hot-text.ld          the code an idle server runs, packed in one place (written
#                                     by scripts/gen-hot-text.py; needs -ffunction-sections)
option(K3C_HOT_TEXT "pack the code an idle server runs together (cmake/k3c-hot-text.ld)" ON)
if(K3C_STATIC_DEPS AND K3C_HOT_TEXT)
  # One section per function, so the linker script can place each (and --gc-sections drop
  # each unused one). Set here, before any target: every library of k3c gets it.
  add_compile_options(-ffunction-sections)
endif()

function(k3c_lean_executable target)
  if(NOT K3C_STATIC_DEPS)
    return()
  endif()
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc -Wl,--as-needed -Wl,-O1)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-Wl,-z,pack-relative-relocs" K3C_HAVE_PACK_RELATIVE_RELOCS)
  if(K3C_HAVE_PACK_RELATIVE_RELOCS)
    target_link_options(${target} PRIVATE -Wl,-z,pack-relative-relocs)
  endif()
  if(K3C_HOT_TEXT)
    set(script ${PROJECT_SOURCE_DIR}/cmake/k3c-hot-text.ld)
    target_link_options(${target} PRIVATE -Wl,-T,${script})
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${script})
  endif()
endfunction()
