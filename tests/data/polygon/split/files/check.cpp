#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong();
    long long a = ouf.readLong(0, n, "a");
    long long b = ouf.readLong(0, n, "b");
    if (a + b != n) quitf(_wa, "%lld + %lld is not %lld", a, b, n);
    quitf(_ok, "%lld = %lld + %lld", n, a, b);
}
