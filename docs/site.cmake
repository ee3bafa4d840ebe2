# Builds the course site (cmake -P, for the docs target and the docs.doxygen test):
#   -DDOXYGEN=<doxygen> -DDOXYFILE=<Doxyfile> -DHTML=<html folder> -DSOURCE=<repository root>
# Runs Doxygen, then copies into html/ each repository file that a page links
# to (a lab's source, the rubric, a counters CSV; Doxygen copies only images), at
# the path the link names: docs/markdown_filter.py made it relative to the
# repository root. The site then holds everything it links to.
foreach(var DOXYGEN DOXYFILE HTML SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "site.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "doxygen failed (${status})")
endif()

file(GLOB pages ${HTML}/*.html)
foreach(page IN LISTS pages)
  file(READ ${page} text)
  string(REGEX MATCHALL "href=\"[^\"#:]+[\"#]" links "${text}")
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^href=\"([^\"#]+).$" "\\1" path "${link}")
    # (file(COPY) skips a copy whose time stamp is the source's.)
    if(NOT path MATCHES "\\.\\." AND EXISTS ${SOURCE}/${path} AND NOT IS_DIRECTORY ${SOURCE}/${path})
      get_filename_component(folder ${HTML}/${path} DIRECTORY)
      file(COPY ${SOURCE}/${path} DESTINATION ${folder})
    endif()
  endforeach()
endforeach()
