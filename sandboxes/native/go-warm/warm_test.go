// The packages whose vet facts a ``go test`` compile needs most (testify's and the standard
// library's a test usually imports): compiled once with this file as a test package, by
// sandboxes/native/Dockerfile and scripts/ensure-toolchains.sh, into the Go build cache a
// go_test compile starts from (judge/languages/frameworks.py GoTest).
package main

import (
	_ "bufio"
	_ "bytes"
	_ "container/heap"
	_ "container/list"
	_ "errors"
	_ "fmt"
	_ "io"
	_ "math"
	_ "math/big"
	_ "math/bits"
	_ "math/rand"
	_ "os"
	_ "reflect"
	_ "regexp"
	_ "sort"
	_ "strconv"
	_ "strings"
	_ "sync"
	_ "time"
	_ "unicode"
	_ "unicode/utf8"
	_ "crypto/md5"
	_ "crypto/sha256"
	_ "encoding/json"
	_ "encoding/hex"
	_ "testing"
	_ "github.com/stretchr/testify/assert"
	_ "github.com/stretchr/testify/require"
	_ "github.com/stretchr/testify/suite"
	_ "github.com/stretchr/testify/mock"
)
