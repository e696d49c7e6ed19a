#include "testlib.h"
#include <iostream>
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    int x = inf.readInt();
    for (int q = 1; q <= 10; q++) {
        std::string kind = ouf.readToken();
        int y = ouf.readInt(1, 100, "y");
        if (kind == "!") {
            if (y != x) quitf(_wa, "guessed %d, the number is %d", y, x);
            tout << "ok" << std::endl;
            quitf(_ok, "found %d in %d queries", x, q);
        }
        if (kind != "?") quitf(_pe, "expected ? or !, got %s", kind.c_str());
        std::cout << (y < x ? "<" : y > x ? ">" : "=") << std::endl;
    }
    quitf(_wa, "more than 10 queries");
}
