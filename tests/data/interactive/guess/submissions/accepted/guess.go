package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	lo, hi := 1, 1000
	for {
		mid := (lo + hi) / 2
		fmt.Println(mid)
		var reply string
		if _, err := fmt.Fscan(in, &reply); err != nil || reply == "correct" {
			return
		}
		if reply == "lower" {
			hi = mid - 1
		} else {
			lo = mid + 1
		}
	}
}
