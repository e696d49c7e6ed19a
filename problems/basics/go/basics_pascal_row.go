package main

func PascalRow(rowIndex int) []int {
	row := []int{1}
	for k := 0; k < rowIndex; k++ {
		row = append(row, row[len(row)-1]*(rowIndex-k)/(k+1))
	}
	return row
}
