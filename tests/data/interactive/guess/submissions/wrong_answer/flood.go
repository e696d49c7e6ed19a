// the interactor reads a bounded line, sees numbers that are not its, and rejects: WA first
package main

import (
	"bufio"
	"os"
)

// megabytes without a newline, forever
func main() {
	out := bufio.NewWriter(os.Stdout)
	for {
		out.WriteString("99999999999999999999999999999999")
	}
}
