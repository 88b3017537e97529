# Dependencies come from pkg-config. A missing one stops configuration with the Debian package
# that provides it, so that a user knows what to install (`make deps` does it).
find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' "
                      "(or run 'make deps').")
endif()

function(mink_require_pkg target module debian_pkg)
  pkg_check_modules(${target} IMPORTED_TARGET ${module})
  if(NOT ${target}_FOUND)
    message(FATAL_ERROR "${module} not found by pkg-config: install the Debian package "
                        "'${debian_pkg}' (or run 'make deps').")
  endif()
endfunction()

mink_require_pkg(LIBUV libuv libuv1-dev)
mink_require_pkg(CJSON libcjson libcjson-dev)
# mink-client's terminal view (wide-character ncurses, as Debian builds it).
mink_require_pkg(NCURSES ncursesw libncurses-dev)
# The HTTP port (metrics, health) runs libwebsockets on the server's libuv loop: Debian's
# libwebsockets-dev loads its libuv event library from the libwebsockets-evlib-uv plugin.
mink_require_pkg(LIBWEBSOCKETS libwebsockets libwebsockets-dev)
# The Agones SDK client: libcurl's multi interface, driven by the same loop.
mink_require_pkg(LIBCURL libcurl libcurl4-openssl-dev)
# Connect tokens (--token-key): HMAC-SHA256 from OpenSSL's libcrypto.
mink_require_pkg(LIBCRYPTO libcrypto libssl-dev)
# A game's rules (server/rules): Debian's Lua 5.4.
mink_require_pkg(LUA lua5.4 liblua5.4-dev)
if(MINK_TESTS)
  mink_require_pkg(CHECK check check)
endif()

find_library(MATH_LIB m REQUIRED)

# A Mink library: a folder whose public header is under include/ and whose internals stay
# private to it (Box2D's `target_include_directories(box2d PUBLIC include PRIVATE src)`).
# USES are the libraries its public header exposes, LINKS those only its sources use: the
# arrows of docs/ARCHITECTURE.md.
function(mink_library name)
  cmake_parse_arguments(L "" "" "SOURCES;USES;LINKS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${L_USES} PRIVATE ${L_LINKS})
endfunction()
