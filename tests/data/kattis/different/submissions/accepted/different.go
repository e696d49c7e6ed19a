package main

import "fmt"

func main() {
	var a, b int64
	for {
		if _, err := fmt.Scan(&a, &b); err != nil {
			return
		}
		if a > b {
			fmt.Println(a - b)
		} else {
			fmt.Println(b - a)
		}
	}
}
