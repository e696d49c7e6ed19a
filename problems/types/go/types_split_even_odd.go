package main

func SplitEvenOdd(nums []int) ([]int, []int) {
	evens, odds := []int{}, []int{}
	for _, v := range nums {
		if v%2 == 0 {
			evens = append(evens, v)
		} else {
			odds = append(odds, v)
		}
	}
	return evens, odds
}
