# kiln_gtest(NAME name SRCS a.cpp b.cpp DEPS lib...)
# Builds a gtest binary and registers it with ctest under its name.
function(kiln_gtest)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                               ${CMAKE_BINARY_DIR}/tests)
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest
                                            GTest::gtest_main)
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS runtime)
endfunction()

# kiln_runtime_library(NAME name DEPS lib...)
# Builds every non-test .cpp in the current directory into `name`, and every
# *Test.cpp into one gtest binary `name_tests` labelled `runtime`.
function(kiln_runtime_library)
  cmake_parse_arguments(ARG "" "NAME" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*Test.cpp)
  if(tests)
    list(REMOVE_ITEM srcs ${tests})
  endif()
  add_library(${ARG_NAME} ${srcs})
  target_include_directories(${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${ARG_NAME} PUBLIC ${ARG_DEPS})
  if(tests)
    kiln_gtest(NAME ${ARG_NAME}_tests SRCS ${tests}
               DEPS ${ARG_NAME} ${ARG_TEST_DEPS})
  endif()
endfunction()
