package main

func PrimeFactors(numberValue int) []int {
	factors := []int{}
	remaining := numberValue
	for d := 2; d*d <= remaining; {
		for remaining%d == 0 {
			factors = append(factors, d)
			remaining /= d
		}
		if d == 2 {
			d++
		} else {
			d += 2
		}
	}
	if remaining > 1 {
		factors = append(factors, remaining)
	}
	return factors
}
