# closes both pipes at once and ends "successfully"
import os
os.close(0)
os.close(1)
