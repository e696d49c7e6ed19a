#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::string got = ouf.readToken();
    if (got != "ok") quitf(_wa, "the interactor said %s", got.c_str());
    quitf(_ok, "found");
}
