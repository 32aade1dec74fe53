#include "doctest/doctest.h"
