# Helpers shared by every src/ module: one static library per folder and one Catch2 test
# binary per module, registered with ctest.

# k3c_unit_tests(<module> <sources...>): builds k3c_<module>_test from *_test.cpp sources and
# adds it to ctest with the label "unit".
function(k3c_unit_tests module)
  set(target k3c_${module}_test)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE k3c_${module} k3c_catch_main Threads::Threads)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/test)
  add_test(NAME unit.${module} COMMAND ${target})
  set_tests_properties(unit.${module} PROPERTIES LABELS unit TIMEOUT 600)
endfunction()
