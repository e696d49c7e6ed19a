package main

func MaxSubarraySum(nums []int) int {
	best, current := nums[0], nums[0]
	for _, v := range nums[1:] {
		if current+v > v {
			current += v
		} else {
			current = v
		}
		if current > best {
			best = current
		}
	}
	return best
}
