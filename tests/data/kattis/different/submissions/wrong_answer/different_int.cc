#include <iostream>
int main() {
    int a, b;
    while (std::cin >> a >> b) std::cout << (a > b ? a - b : b - a) << "\n";
}
