#include <map>
#include <string>
#include <vector>

static long long length_in_code_points(const std::string& s) {
    long long n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::map<long long, std::vector<std::string>> group_by_length(const std::vector<std::string>& word_list) {
    std::map<long long, std::vector<std::string>> groups;
    for (const auto& word : word_list) groups[length_in_code_points(word)].push_back(word);
    return groups;
}
