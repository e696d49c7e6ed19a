// Interactive validator: reads the secret from the input file, answers guesses on
// stdout (the candidate's stdin), reads guesses on stdin (the candidate's stdout).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
    if (argc < 4) return 1;
    std::ifstream in(argv[1]);
    FILE *message = std::fopen((std::string(argv[3]) + "/judgemessage.txt").c_str(), "w");
    int secret;
    if (!in || !message || !(in >> secret)) return 1;
    for (int tries = 1; tries <= 10; ++tries) {
        int guess;
        if (!(std::cin >> guess)) {
            std::fprintf(message, "no guess %d\n", tries);
            return 43;
        }
        if (guess == secret) {
            std::cout << "correct" << std::endl;
            return 42;
        }
        std::cout << (guess < secret ? "higher" : "lower") << std::endl;
    }
    std::fprintf(message, "more than 10 guesses\n");
    return 43;
}
