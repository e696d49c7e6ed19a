#include <algorithm>
#include <vector>
using namespace std;

vector<vector<long long>> merge_intervals(vector<vector<long long>> intervals) {
    sort(intervals.begin(), intervals.end());
    vector<vector<long long>> merged;
    for (const auto& iv : intervals) {
        if (!merged.empty() && iv[0] <= merged.back()[1]) {
            merged.back()[1] = max(merged.back()[1], iv[1]);
        } else {
            merged.push_back({iv[0], iv[1]});
        }
    }
    return merged;
}
