// The one main() every Catch2 unit test binary links.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
