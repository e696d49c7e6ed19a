#include <sstream>
#include <string>
#include <tuple>

std::tuple<long long, std::string> longest_word(const std::string& input_text) {
    std::istringstream in(input_text);
    std::string word, best;
    while (in >> word) if (word.size() > best.size()) best = word;
    return {(long long)best.size(), best};
}
