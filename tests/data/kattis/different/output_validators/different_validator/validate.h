// A small helper for output validators (the Kattis protocol): accept() exits 42,
// wrong_answer() writes judgemessage.txt and exits 43.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

static std::ifstream judge_in, judge_ans;
static FILE *judge_message = nullptr;

inline void init_io(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s input answer feedback_dir < output\n", argv[0]);
        std::exit(1);
    }
    judge_in.open(argv[1]);
    judge_ans.open(argv[2]);
    judge_message = std::fopen((std::string(argv[3]) + "/judgemessage.txt").c_str(), "w");
    if (!judge_in || !judge_ans || !judge_message) std::exit(1);
}

[[noreturn]] inline void accept() { std::exit(42); }

[[noreturn]] inline void wrong_answer(const char *format, ...) {
    va_list args;
    va_start(args, format);
    std::vfprintf(judge_message, format, args);
    va_end(args);
    std::fputc('\n', judge_message);
    std::exit(43);
}
