package main

func CaesarShift(message string, shift int) string {
	k := byte(((shift % 26) + 26) % 26)
	out := []byte(message)
	for i, ch := range out {
		if ch >= 'a' && ch <= 'z' {
			out[i] = 'a' + (ch-'a'+k)%26
		} else if ch >= 'A' && ch <= 'Z' {
			out[i] = 'A' + (ch-'A'+k)%26
		}
	}
	return string(out)
}
