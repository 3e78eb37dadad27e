// The `tessera` command-line tool.
#include <cstdio>

int main(int argc, char** argv) { return 0; }
