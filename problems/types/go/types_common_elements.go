package main

func CommonElements(firstNums []int, secondNums []int) map[int]bool {
	first := map[int]bool{}
	for _, x := range firstNums {
		first[x] = true
	}
	out := map[int]bool{}
	for _, x := range secondNums {
		if first[x] {
			out[x] = true
		}
	}
	return out
}
