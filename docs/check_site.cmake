# Checks the Doxygen site after a build (cmake -P, for the docs.site test):
#   -DHTML=<html folder> -DSOURCE=<repository root>
# - the main page is the README (its title is in index.html);
# - every Markdown file of the site has its page, and so does every header of
#   the harness API (common/include/pp);
# - every relative link and image (a href, img src, object data) of every
#   page points to a file inside the built site (html/), as a reader of the
#   site follows it, and a link to page.html#id to an anchor that page has;
#   no link is left pointing at a .md file (Doxygen turns links between the
#   Markdown files into links between their pages);
# - no page shows a Markdown link as text ("[text](target)"): Doxygen leaves
#   one so when it does not take its target for a link; nor Doxygen's own
#   markup escaped into text ("&lt;tt&gt;", from a code span in a heading);
# - the guided hints stay off the challenge level's path: each handout
#   (docs/labs/NN-name.md) links its hints page (docs/labs/hints/NN-name.md)
#   and holds no hints section itself, and no file of labs-challenge/ names
#   the hints pages.
foreach(var HTML SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_site.cmake: -D${var}=... is required")
  endif()
endforeach()
get_filename_component(HTML "${HTML}" ABSOLUTE)
get_filename_component(SOURCE "${SOURCE}" ABSOLUTE)
if(NOT EXISTS ${HTML}/index.html)
  message(FATAL_ERROR "no ${HTML}/index.html: run doxygen first")
endif()

set(problems "")

# The README's first line, "# Title", must be the main page's title.
file(STRINGS ${SOURCE}/README.md readme_title LIMIT_COUNT 1)
string(REGEX REPLACE "^# *" "" readme_title "${readme_title}")
file(READ ${HTML}/index.html index)
string(FIND "${index}" "${readme_title}" at)
if(at EQUAL -1)
  string(APPEND problems "index.html is not the README: its title \"${readme_title}\" is missing\n")
endif()

# Doxygen names the page of a/b-c.md md_a_b_c.html.
file(GLOB pages RELATIVE ${SOURCE} ${SOURCE}/CONTRIBUTING.md ${SOURCE}/docs/*.md
     ${SOURCE}/docs/labs/*.md ${SOURCE}/docs/labs/hints/*.md ${SOURCE}/docs/results/*.md
     ${SOURCE}/docs/results/h200/*.md)
foreach(page IN LISTS pages)
  string(REGEX REPLACE "\\.md$" "" name "${page}")
  string(REGEX REPLACE "[/-]" "_" name "${name}")
  if(NOT EXISTS ${HTML}/md_${name}.html)
    string(APPEND problems "${page} has no page (md_${name}.html)\n")
  endif()
endforeach()

# Each handout links its own hints page and holds no hints itself; the
# challenge files never point to them.
file(GLOB handouts RELATIVE ${SOURCE}/docs/labs ${SOURCE}/docs/labs/*.md)
foreach(handout IN LISTS handouts)
  file(READ ${SOURCE}/docs/labs/${handout} text)
  if(NOT EXISTS ${SOURCE}/docs/labs/hints/${handout})
    string(APPEND problems "docs/labs/${handout} has no hints page docs/labs/hints/${handout}\n")
  endif()
  string(FIND "${text}" "](hints/${handout})" at)
  if(at EQUAL -1)
    string(APPEND problems "docs/labs/${handout} does not link its hints page (hints/${handout})\n")
  endif()
  if(text MATCHES "\n#+ *Hints")
    string(APPEND problems "docs/labs/${handout} holds a hints section: it belongs on hints/${handout}\n")
  endif()
endforeach()
file(GLOB_RECURSE challenge_files ${SOURCE}/labs-challenge/*)
foreach(file IN LISTS challenge_files)
  file(STRINGS ${file} naming REGEX "docs/labs/hints")
  if(naming)
    file(RELATIVE_PATH name ${SOURCE} ${file})
    string(APPEND problems "${name} names the guided hints (docs/labs/hints)\n")
  endif()
endforeach()

# Every header of the harness API has its page: Doxygen names the page of
# a_b.h a__b_8h.html.
file(GLOB headers RELATIVE ${SOURCE}/common/include/pp ${SOURCE}/common/include/pp/*.h)
foreach(header IN LISTS headers)
  string(REPLACE "_" "__" name "${header}")
  string(REPLACE "." "_8" name "${name}")
  if(NOT EXISTS ${HTML}/${name}.html)
    string(APPEND problems "common/include/pp/${header} has no page (${name}.html)\n")
  endif()
endforeach()

# The anchors a page defines, cached per page.
function(anchors_of file out)
  if(NOT DEFINED anchors_${file})
    file(READ ${HTML}/${file} text)
    string(REGEX MATCHALL "(id|name)=\"[^\"]+\"" found "${text}")
    list(TRANSFORM found REPLACE "^(id|name)=\"([^\"]+)\"$" "\\2")
    set(anchors_${file} "${found}" PARENT_SCOPE)
    set(${out} "${found}" PARENT_SCOPE)
  else()
    set(${out} "${anchors_${file}}" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB html_files RELATIVE ${HTML} ${HTML}/*.html)
list(LENGTH html_files count)
if(count LESS 2)
  string(APPEND problems "no pages found in ${HTML}\n")
endif()
foreach(file IN LISTS html_files)
  file(READ ${HTML}/${file} text)
  string(REGEX MATCHALL "\\]\\([^) ]+\\)" raw "${text}")
  foreach(link IN LISTS raw)
    string(APPEND problems "${file}: ${link} shown as text, not a link\n")
  endforeach()
  # (";" would split a CMake list: matched without it.)
  string(REGEX MATCHALL "&lt.(tt|code)&gt" raw "${text}")
  if(raw)
    string(APPEND problems "${file}: Doxygen's <tt> or <code> shown as text\n")
  endif()
  # <object data=...>: how Doxygen shows an SVG image of its own paragraph.
  string(REGEX MATCHALL " (href|src|data)=\"[^\"]*\"" links "${text}")
  list(REMOVE_DUPLICATES links)
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^ (href|src|data)=\"([^\"]*)\"$" "\\2" target "${link}")
    if(target MATCHES "^(https?:|mailto:|javascript:)" OR target STREQUAL "")
      continue()
    endif()
    set(anchor "")
    if(target MATCHES "#(.*)$")
      set(anchor "${CMAKE_MATCH_1}")
    endif()
    string(REGEX REPLACE "#.*$" "" path "${target}")
    if(path STREQUAL "")
      set(path ${file})
    endif()
    if(path MATCHES "\\.md$")
      string(APPEND problems "${file}: link to ${target}: a Markdown file, not its page\n")
    elseif(NOT EXISTS ${HTML}/${path} OR path MATCHES "(^|/)\\.\\.(/|$)")
      string(APPEND problems "${file}: link to ${target}: no such file in the site\n")
    elseif(NOT anchor STREQUAL "" AND path MATCHES "\\.html$")
      anchors_of(${path} ids)
      list(FIND ids "${anchor}" found)
      if(found EQUAL -1)
        string(APPEND problems "${file}: link to ${target}: ${path} has no anchor ${anchor}\n")
      endif()
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "the site has problems:\n${problems}")
endif()
message(STATUS "site OK: ${count} pages, the README as the main page, every link resolves")
