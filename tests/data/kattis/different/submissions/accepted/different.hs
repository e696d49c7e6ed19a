main :: IO ()
main = interact $ unlines . map (show . diff . map read . words) . lines
  where diff [a, b] = abs (a - b :: Integer)
