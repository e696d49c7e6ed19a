#include <map>
#include <string>
#include <vector>

std::map<long long, std::vector<std::string>> group_by_length(const std::vector<std::string>& word_list) {
    std::map<long long, std::vector<std::string>> groups;
    for (const auto& word : word_list) groups[(long long)word.size()].push_back(word);
    return groups;
}
