#include <sstream>
#include <string>
#include <tuple>

static long long length_in_code_points(const std::string& s) {
    long long n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::tuple<long long, std::string> longest_word(const std::string& input_text) {
    std::istringstream in(input_text);
    std::string word, best;
    while (in >> word) if (length_in_code_points(word) > length_in_code_points(best)) best = word;
    return {length_in_code_points(best), best};
}
