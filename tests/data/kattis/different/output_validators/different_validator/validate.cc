// Accepts the right differences written as integers, with any whitespace.
#include "validate.h"

int main(int argc, char **argv) {
    init_io(argc, argv);
    long long a, b;
    int line = 0;
    while (judge_in >> a >> b) {
        ++line;
        long long want = a > b ? a - b : b - a;
        std::string token;
        if (!(std::cin >> token)) wrong_answer("line %d: no answer", line);
        std::size_t used = 0;
        long long got;
        try {
            got = std::stoll(token, &used);
        } catch (...) {
            wrong_answer("line %d: %.40s is not an integer", line, token.c_str());
        }
        if (used != token.size()) wrong_answer("line %d: %.40s is not an integer", line, token.c_str());
        if (got != want) wrong_answer("line %d: expected %lld, got %lld", line, want, got);
    }
    std::string extra;
    if (std::cin >> extra) wrong_answer("trailing output");
    accept();
}
