package main

func GroupByLength(wordList []string) map[int][]string {
	groups := map[int][]string{}
	for _, w := range wordList {
		n := len([]rune(w))
		groups[n] = append(groups[n], w)
	}
	return groups
}
