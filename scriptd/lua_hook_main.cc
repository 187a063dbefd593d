// skiff-lua-hook: calls one burst_buffer.lua function for scriptd and exits
// (scriptd/lua_helper.h has its command line, its answer and why it is a
// program of its own).
#include "scriptd/lua_helper.h"

int main(int argc, char** argv) { return skiff::scriptd::LuaHelperMain(argc, argv); }
