#include "testlib.h"
#include <set>
// Marathon-style: any list of distinct integers from 1 to n is accepted; its share of n, in percent, is
// test's points (quitp). Anything else is a wrong answer.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
    std::set<int> seen;
    while (!ouf.seekEof()) {
        int x = ouf.readInt(1, n, "x");
        if (!seen.insert(x).second) quitf(_wa, "%d listed twice", x);
    }
    quitp(100.0 * seen.size() / n, "%d of %d", (int) seen.size(), n);
}
