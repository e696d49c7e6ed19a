#include <vector>

std::vector<long long> pascal_row(long long row_index) {
    std::vector<long long> row{1};
    for (long long k = 0; k < row_index; k++) row.push_back(row.back() * (row_index - k) / (k + 1));
    return row;
}
