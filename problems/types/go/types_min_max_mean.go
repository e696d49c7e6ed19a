package main

func MinMaxMean(values []float64) (float64, float64, float64) {
	lo, hi, sum := values[0], values[0], 0.0
	for _, v := range values {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
		sum += v
	}
	return lo, hi, sum / float64(len(values))
}
