#include <string>

std::string caesar_shift(const std::string& message, long long shift) {
    int k = (int)(((shift % 26) + 26) % 26);
    std::string out = message;
    for (char& ch : out) {
        if (ch >= 'a' && ch <= 'z') ch = (char)('a' + (ch - 'a' + k) % 26);
        else if (ch >= 'A' && ch <= 'Z') ch = (char)('A' + (ch - 'A' + k) % 26);
    }
    return out;
}
