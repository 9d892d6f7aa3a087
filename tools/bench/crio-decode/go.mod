module github.com/crio-pin/crio-pin/tools/bench/crio-decode

go 1.24.0

require github.com/BurntSushi/toml v1.6.0
