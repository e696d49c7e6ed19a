package main

import "sort"

func MedianOrNone(values []float64) *float64 {
	if len(values) == 0 {
		return nil
	}
	s := append([]float64{}, values...)
	sort.Float64s(s)
	mid := len(s) / 2
	m := s[mid]
	if len(s)%2 == 0 {
		m = (s[mid-1] + s[mid]) / 2
	}
	return &m
}
