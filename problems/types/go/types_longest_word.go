package main

import "strings"

func LongestWord(inputText string) (int, string) {
	best := ""
	for _, w := range strings.Fields(inputText) {
		if len([]rune(w)) > len([]rune(best)) {
			best = w
		}
	}
	return len([]rune(best)), best
}
