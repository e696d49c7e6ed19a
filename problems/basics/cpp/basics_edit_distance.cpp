#include <algorithm>
#include <string>
#include <vector>

// Strings arrive as UTF-8: compare code points, not bytes.
static std::vector<std::string> code_points(const std::string& s) {
    std::vector<std::string> out;
    for (size_t i = 0; i < s.size();) {
        size_t n = 1;
        while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) n++;
        out.push_back(s.substr(i, n));
        i += n;
    }
    return out;
}

long long edit_distance(const std::string& source_word, const std::string& target_word) {
    auto s = code_points(source_word), t = code_points(target_word);
    std::vector<long long> prev(t.size() + 1), cur(t.size() + 1);
    for (size_t j = 0; j <= t.size(); j++) prev[j] = j;
    for (size_t i = 1; i <= s.size(); i++) {
        cur[0] = i;
        for (size_t j = 1; j <= t.size(); j++) {
            long long sub = prev[j - 1] + (s[i - 1] != t[j - 1]);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[t.size()];
}
