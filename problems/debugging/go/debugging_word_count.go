package main

import "strings"

func WordCount(inputText string) map[string]int {
	counts := map[string]int{}
	for _, word := range strings.Fields(strings.ToLower(inputText)) {
		counts[word]++
	}
	return counts
}
