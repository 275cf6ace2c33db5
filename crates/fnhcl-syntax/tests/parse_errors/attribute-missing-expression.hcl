a = 
