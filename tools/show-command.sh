#!/bin/sh
# Shows a command as a reader would type it, "$ COMMAND", in 100 columns:
# a longer one is continued with \ at a space (make demo's sections).
#   sh tools/show-command.sh 'crio-pin lint'
echo "\$ $*" | awk '{
    s = $0
    while (length(s) > 98) {
        i = 96
        while (i > 1 && substr(s, i, 1) != " ") i--
        if (i == 1) break
        print substr(s, 1, i) "\\"
        s = "      " substr(s, i + 1)
    }
    print s
}'
