"""date and cal (`main`, `cal`), and the date parser and formatter other commands share (`parse`:
touch -d, find -newermt; `fmt`: jq's and awk's time functions, pr's headers).

Nothing is imported here: the registry imports each command's module, and other commands import
`fmt` or `parse` alone, so a first jq or find does not load the date command. The English day and
month names are here, for jq's time functions without the datetime module.
"""

DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
