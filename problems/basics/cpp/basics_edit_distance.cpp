#include <algorithm>
#include <string>
#include <vector>

long long edit_distance(const std::string& source_word, const std::string& target_word) {
    std::vector<long long> prev(target_word.size() + 1), cur(target_word.size() + 1);
    for (size_t j = 0; j <= target_word.size(); j++) prev[j] = j;
    for (size_t i = 1; i <= source_word.size(); i++) {
        cur[0] = i;
        for (size_t j = 1; j <= target_word.size(); j++) {
            long long sub = prev[j - 1] + (source_word[i - 1] != target_word[j - 1]);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[target_word.size()];
}
