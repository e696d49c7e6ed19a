package main

func sortCount(values []int) ([]int, int) {
	if len(values) <= 1 {
		return values, 0
	}
	mid := len(values) / 2
	left, a := sortCount(append([]int{}, values[:mid]...))
	right, b := sortCount(append([]int{}, values[mid:]...))
	merged := make([]int, 0, len(values))
	count, i, j := a+b, 0, 0
	for i < len(left) && j < len(right) {
		if left[i] <= right[j] {
			merged = append(merged, left[i])
			i++
		} else {
			merged = append(merged, right[j])
			count += len(left) - i
			j++
		}
	}
	merged = append(merged, left[i:]...)
	return append(merged, right[j:]...), count
}

func CountInversions(nums []int) int {
	_, count := sortCount(nums)
	return count
}
