#include <cctype>
#include <map>
#include <sstream>
#include <string>

std::map<std::string, long long> word_count(const std::string& input_text) {
    std::map<std::string, long long> counts;
    std::istringstream in(input_text);
    std::string word;
    while (in >> word) {
        for (char& c : word) c = (char)std::tolower((unsigned char)c);
        counts[word]++;
    }
    return counts;
}
